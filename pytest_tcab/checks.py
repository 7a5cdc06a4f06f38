"""placeholder"""
def check_items(parent, run):
    return []

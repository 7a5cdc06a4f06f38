"""placeholder"""
def validate_items(parent, run):
    return []

def perf_items(parent, run):
    return []

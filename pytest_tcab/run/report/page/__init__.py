"""index.html's parts: the chart, the verdict map and the page's own script, beside index.py."""

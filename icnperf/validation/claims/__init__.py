"""One module per source paper, each exporting ``CLAIMS``: the claims it registers."""

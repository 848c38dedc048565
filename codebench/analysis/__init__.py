"""The report stage: metrics over stored rows (`metrics`) and their renderings (`report`); later comparisons and plots."""

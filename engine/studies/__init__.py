"""Studies apart from the library: the length study, training budgets, attention against an aligner."""

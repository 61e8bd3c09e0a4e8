"""Reports of evaluation runs: Table I, plots, the HTML report and the trajectory viewer."""

"""The Evaluate page's tabs (run, sweep, generate, label, saved runs), with the result view and the
question-set picker they share."""

"""What a run has done so far and its record: the state, the trace, its directory; the errors that end it (bad input, a full disk)."""

"""Log format parsers: each turns a raw log into the shared intermediate (`model.ParsedLog`)."""

"""Test runners: one module per runner (how it is recognised, what its output says per test,
how to run it on some paths), and the reader that splits a log into sections."""

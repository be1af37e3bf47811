"""The verdict as one seam: every test run the harness counts goes through here.

`run.run_tests` rewrites the command (one list of transforms), runs it in the sandbox and reads
its output once into facts; `judge.judge(now, base, policy)` is the one pure judge, with the
step's and the final check's policies side by side; `evidence` turns a Verdict into words only
at the end. The runners' knowledge lives in `summarizers.runners`.
"""

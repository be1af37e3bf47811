"""The run's runtime (what its phases share) and its files: state.json as the run goes, result.json and final.patch, the point a resume starts from."""

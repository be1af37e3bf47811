"""Taking a verified change into the user's tree."""

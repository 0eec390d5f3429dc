"""Play surfaces: the terminal game, the local web server and game replay files."""

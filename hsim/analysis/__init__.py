"""Statistics over run folders (pandas); never imports the engine's internals."""

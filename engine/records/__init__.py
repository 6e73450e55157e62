"""Records of work: run folders and their metrics logs, travel through training, session files."""

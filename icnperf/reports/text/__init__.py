"""What each CLI command prints: calls the model or validation, shapes rows, renders them.

One module per command group; ``cli.py`` only parses options and calls these.
"""

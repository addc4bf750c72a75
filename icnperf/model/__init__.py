"""The formulas: pure functions of plain numbers (NumPy arrays), no I/O and no printing."""

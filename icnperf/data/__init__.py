"""Bundled files and their readers and writers: machines, measurements, workloads, costs."""

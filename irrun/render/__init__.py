"""Rendering models and reports as text and HTML (data in, strings out)."""

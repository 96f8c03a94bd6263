"""Committed detector weights and their model card (README.md)."""

"""Synthetic training scenes, and checking a YOLO-format tile data set."""

"""Scoring core for Taiwan 16-tile mahjong: tiles → hand → splits and waits → 台 entries → settlement.

Pure Python; imports nothing from vision, datasets or any CV/ML library.
"""

"""Dates, times and repeats in people's words (English, German, French), read in the
person's time zone: what becomes `due`, `remind` and `repeat`."""

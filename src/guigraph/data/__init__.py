"""GUIOdyssey data: command strings, reading and writing episode folders, checking them."""

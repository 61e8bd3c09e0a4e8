"""The task's language: parsed once (``ParsedTask``), read with the language's own tables.

Below the compiler (it imports nothing of guigraph's but ``errors``): ``tables`` holds a
language's small word tables and tells which language a text is in, ``numbers`` reads
numbers and times through kept libraries, ``parse`` turns an instruction into a
``ParsedTask`` every later step reads.
"""

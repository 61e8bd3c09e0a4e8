"""Real desktop applications under a display of the world's own (extra ``desktop``)."""

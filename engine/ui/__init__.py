"""The terminal side: rendering with rich, the interactive and scripted front ends."""

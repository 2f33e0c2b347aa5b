"""attnquiz: learn scaled dot-product attention by recall, derivation and code."""

__version__ = "0.1.0"

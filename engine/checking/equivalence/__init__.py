"""Judging a typed answer against the bank's: is it the same thing, and if not, what is wrong?

One module per kind of answer: `expression` (formulas, by canonical form, random points of the
declared `domain` in `numeric`, then `simplify`), `number` (chains, working in brackets, rounding,
`units`), `shape`, `vector`, and `code_blank` (a blank in NumPy code, by what it computes).
`asked` judges whether the left side of an answer names what the question asks for.
"""

"""Reading a typed answer: from what the learner typed to a SymPy expression, never evaluated.

The text goes through `typography` (Unicode and LaTeX to ASCII), `python_spelling` (NumPy and
Python spellings to maths), `notation` (canonical symbol names, implicit products, transposes,
`big_operators` for sums and products), then `safe_ast` (size limits and a whitelisted syntax
tree) and `to_sympy` (the tree, node by node, as SymPy). `statement` splits an answer into its
left side, its chain of links and a remark before any of that.
"""

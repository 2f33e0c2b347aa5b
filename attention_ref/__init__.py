"""Reference kernels for scaled dot-product attention, and the checking of learners' code.

`reference` is the NumPy ground truth for every numeric answer in the banks; `pitfalls` holds the
classic mistakes as functions (for diagnosis and teaching); `kernel` is the fast Numba kernel.
Importing this package imports nothing heavy; NumPy loads with the submodules.
"""

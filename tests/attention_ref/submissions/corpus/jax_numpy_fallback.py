try:  # runs on JAX when it is installed, on NumPy otherwise
    import jax.numpy as jnp
    from jax.nn import softmax
except ImportError:  # pragma: no cover
    import numpy as jnp
    from scipy.special import softmax


def attention(q, k, v, mask=None):
    """q: [..., q_len, d], k: [..., kv_len, d], v: [..., kv_len, d_v]; mask: bool, True = keep."""
    depth = q.shape[-1]
    logits = jnp.einsum("...qd,...kd->...qk", q, k) / jnp.sqrt(depth)
    if mask is not None:
        logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
    weights = softmax(logits, axis=-1)
    return jnp.einsum("...qk,...kd->...qd", weights, v)

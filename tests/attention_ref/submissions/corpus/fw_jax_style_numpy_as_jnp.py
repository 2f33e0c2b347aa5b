# Ported from a JAX/Flax codebase; numpy stands in for jax.numpy so the
# math stays identical and this runs without an accelerator.
import numpy as jnp


def softmax(x, axis=-1):
    x_max = jnp.max(x, axis, keepdims=True)
    unnormalized = jnp.exp(x - jnp.asarray(x_max))
    return unnormalized / jnp.sum(unnormalized, axis, keepdims=True)


def dot_product_attention_weights(query, key):
    depth = query.shape[-1]
    query = query / jnp.sqrt(depth).astype(query.dtype)
    logits = jnp.einsum("...qd,...kd->...qk", query, key)
    return softmax(logits, axis=-1)


def dot_product_attention(query, key, value):
    weights = dot_product_attention_weights(query, key)
    return jnp.einsum("...qk,...kd->...qd", weights, value)

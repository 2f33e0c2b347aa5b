import numpy as np


def scaled_dot_product_attention(q, k, v, mask):
    """Calculate the attention weights (numpy port of the TF tutorial cell).

    q: (..., seq_len_q, depth), k: (..., seq_len_k, depth), v: (..., seq_len_k, depth_v)
    mask: float, 1 where a position must be hidden, 0 elsewhere; None for no mask.

    Returns: output, attention_weights
    """
    matmul_qk = np.matmul(q, np.swapaxes(k, -2, -1))
    dk = np.float32(k.shape[-1])
    scaled_attention_logits = matmul_qk / np.sqrt(dk)

    if mask is not None:
        scaled_attention_logits += mask * -1e9

    logits = scaled_attention_logits - np.max(scaled_attention_logits, axis=-1, keepdims=True)
    attention_weights = np.exp(logits)
    attention_weights /= np.sum(attention_weights, axis=-1, keepdims=True)

    output = np.matmul(attention_weights, v)
    return output, attention_weights


def print_out(q, k, v):
    temp_out, temp_attn = scaled_dot_product_attention(q, k, v, None)
    print("Attention weights are:")
    print(temp_attn)
    print("Output is:")
    print(temp_out)


np.set_printoptions(suppress=True)
temp_k = np.array([[10, 0, 0], [0, 10, 0], [0, 0, 10], [0, 0, 10]], dtype=np.float32)
temp_v = np.array([[1, 0], [10, 0], [100, 5], [1000, 6]], dtype=np.float32)
temp_q = np.array([[0, 10, 0]], dtype=np.float32)
print_out(temp_q, temp_k, temp_v)

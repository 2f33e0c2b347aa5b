#!/usr/bin/env python
# coding: utf-8

# # Attention from scratch
# 
# We build scaled dot-product attention step by step.

# In[1]:


import numpy as np


# In[2]:


def scaled_dot_product_attention(q, k, v):
    matmul_qk = np.matmul(q, k.T)
    dk = k.shape[-1]
    scaled_attention_logits = matmul_qk / np.sqrt(dk)
    scaled_attention_logits -= scaled_attention_logits.max(axis=-1, keepdims=True)
    attention_weights = np.exp(scaled_attention_logits)
    attention_weights /= attention_weights.sum(axis=-1, keepdims=True)
    output = np.matmul(attention_weights, v)
    return output, attention_weights


# In[3]:


temp_k = np.array([[10, 0, 0], [0, 10, 0], [0, 0, 10], [0, 0, 10]], dtype=np.float32)
temp_v = np.array([[1, 0], [10, 0], [100, 5], [1000, 6]], dtype=np.float32)
temp_q = np.array([[0, 10, 0]], dtype=np.float32)
temp_out, temp_attn = scaled_dot_product_attention(temp_q, temp_k, temp_v)
print(temp_attn)
print(temp_out)


# In[ ]:





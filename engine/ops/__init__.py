"""Operations: metrics, traces, logs and retention."""

/** Token usage reported by a provider for one response. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Reasoning tokens, when the provider reports them (already included in outputTokens). */
  reasoningTokens?: number;
  /** Prompt tokens served from cache, when reported. */
  cacheReadTokens?: number;
  totalTokens: number;
}

/** Why a response ended: a unified value plus the provider's raw string. */
export interface FinishReason {
  unified: 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';
  raw: string | null;
}

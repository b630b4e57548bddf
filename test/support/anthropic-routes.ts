/**
 * SPEC §9.1's test list of Claude model ids and whether native Anthropic keeps earlier turns'
 * thinking for them. The replay policy (test/replay) and the Anthropic emulator's own model table
 * (test/emulators) are both held against it, each adding rows of its own.
 */
export const SPEC_PRIOR_THINKING_MODELS: readonly [string, boolean][] = [
  ['claude-haiku-5', false],
  ['claude-sonnet-4', false],
  ['claude-3-7-sonnet', false],
  ['hermes-4-405b', false],
  ['claude-newfamily-7', true],
  ['claude-mythos-preview', true],
  ['claude-opus-4-8', true],
  ['claude-sonnet-4-5', false],
  ['claude-haiku-4-5', false],
  ['claude-haiku-5-5', true],
];

/** Base URLs of the SPEC §9.2 endpoint list that several route tables use. */
export const ANTHROPIC_BASE_URLS = {
  bedrock: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  bedrockFips: 'https://bedrock-runtime-fips.us-east-1.amazonaws.com',
  vertex: 'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5',
  foundry: 'https://res.services.ai.azure.com/anthropic',
  kimi: 'https://api.kimi.com/coding',
  deepseek: 'https://api.deepseek.com/anthropic',
  minimax: 'https://api.minimax.io/anthropic',
  relay: 'https://relay.example.com/v1',
  lookAlikePath: 'https://evil.example/api.anthropic.com',
  lookAlikeHost: 'https://api.anthropic.com.evil.example',
};

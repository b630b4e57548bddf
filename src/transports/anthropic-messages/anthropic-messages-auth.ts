/**
 * Request headers and authentication per Claude platform (WIRE.md §2.5): direct and compatible
 * hosts `x-api-key`; Microsoft Foundry `api-key`; Vertex AI a bearer token from Google ADC
 * (google-auth-library); Bedrock InvokeModel AWS SigV4 (@smithy/signature-v4 with credentials from
 * the AWS SDK default chain). Keys are never logged or echoed.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { AuthenticationError } from '../../core/errors.js';
import type { AnthropicPlatform } from '../../replay/anthropic-endpoint-route.js';
import { bedrockRegionOf } from '../../replay/replay-host.js';
import { ANTHROPIC_VERSION_HEADER } from './anthropic-messages-wire.js';

/** Injectable credentials (tests, custom setups); defaults read the environment / cloud SDKs. */
export interface AnthropicAuthOptions {
  /** Vertex AI: returns an OAuth access token. Default: google-auth-library ADC. */
  getAccessToken?: () => Promise<string>;
  /** Bedrock: AWS credentials or a provider of them. Default: `defaultProvider()` of @aws-sdk/credential-provider-node. */
  awsCredentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Bedrock region when the URL does not name one (default `AWS_REGION`, then `us-east-1`). */
  awsRegion?: string;
  /** Environment to read keys from (default `process.env`). */
  environment?: Record<string, string | undefined>;
}

/** What {@link anthropicRequestHeaders} needs. */
export interface AnthropicHeaderInput {
  platform: AnthropicPlatform;
  url: string;
  body: string;
  stream: boolean;
  betas: readonly string[];
  apiKey?: string | undefined;
}

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

async function resolveAwsCredentials(options: AnthropicAuthOptions): Promise<AwsCredentialIdentity> {
  const given = options.awsCredentials;
  if (typeof given === 'function') return given();
  if (given) return given;
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  return defaultProvider()();
}

async function vertexToken(options: AnthropicAuthOptions): Promise<string> {
  if (options.getAccessToken) return options.getAccessToken();
  const { GoogleAuth } = await import('google-auth-library');
  const token = await new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE] }).getAccessToken();
  if (!token) {
    throw new AuthenticationError(
      'Google Application Default Credentials returned no access token. Run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS.',
      { status: 401, body: '' },
    );
  }
  return token;
}

/** Signs a Bedrock request with SigV4 (service `bedrock`); returns the signed headers minus `host`. */
export async function signBedrockRequest(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: AnthropicAuthOptions,
): Promise<Record<string, string>> {
  const parsed = new URL(url);
  const environment = options.environment ?? process.env;
  const region =
    bedrockRegionOf(url) ??
    options.awsRegion ??
    environment['AWS_REGION'] ??
    environment['AWS_DEFAULT_REGION'] ??
    'us-east-1';
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials: await resolveAwsCredentials(options),
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: parsed.protocol,
    hostname: parsed.hostname,
    ...(parsed.port === '' ? {} : { port: Number(parsed.port) }),
    path: parsed.pathname,
    // A base URL's query (transport-url.ts) is part of what is signed.
    query: queryOf(parsed.searchParams),
    headers: { ...headers, host: parsed.host },
    body,
  });
  // fetch sets Host itself (to the same value that was signed).
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers))
    if (name.toLowerCase() !== 'host') out[name] = String(value);
  return out;
}

/** URL search parameters as the signer takes them: repeated names as arrays. */
function queryOf(parameters: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of parameters) {
    const present = query[name];
    query[name] = present === undefined ? value : [...(Array.isArray(present) ? present : [present]), value];
  }
  return query;
}

/** All headers for one request, authentication included. */
export async function anthropicRequestHeaders(
  input: AnthropicHeaderInput,
  options: AnthropicAuthOptions,
): Promise<Record<string, string>> {
  const environment = options.environment ?? process.env;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: input.stream
      ? input.platform === 'bedrock'
        ? 'application/vnd.amazon.eventstream'
        : 'text/event-stream'
      : 'application/json',
  };
  if (input.platform === 'bedrock') {
    // Bedrock takes `anthropic_version` and `anthropic_beta` in the body (WIRE.md §2.5).
    return signBedrockRequest(input.url, input.body, headers, options);
  }
  if (input.platform !== 'vertex') headers['anthropic-version'] = ANTHROPIC_VERSION_HEADER;
  if (input.betas.length > 0) headers['anthropic-beta'] = input.betas.join(',');
  if (input.platform === 'vertex') {
    headers['authorization'] = `Bearer ${await vertexToken(options)}`;
  } else if (input.platform === 'foundry') {
    const key = input.apiKey ?? environment['ANTHROPIC_FOUNDRY_API_KEY'];
    if (key) headers['api-key'] = key;
  } else {
    const key = input.apiKey ?? (input.platform === 'direct' ? environment['ANTHROPIC_API_KEY'] : undefined);
    if (key) headers['x-api-key'] = key;
  }
  return headers;
}

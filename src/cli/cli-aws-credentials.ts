import { UsageError } from '../core/errors.js';
import type { Route } from '../core/route.js';

/** Whether a route signs its requests with AWS credentials (Bedrock Converse, or Anthropic on Bedrock). */
export function usesAwsCredentials(route: Route): boolean {
  return route.api === 'bedrock_converse' || (route.api === 'anthropic_messages' && route.provider === 'bedrock');
}

/**
 * Checks, before anything is stored, that a Bedrock route can sign its requests: the AWS SDK's
 * default credential chain (environment, `AWS_PROFILE` and the shared files, SSO, web identity,
 * the container or instance role) yields credentials, or a Bedrock API key is given (`--api-key`,
 * or `AWS_BEARER_TOKEN_BEDROCK`, which the SDK reads itself). Without either it is a usage error
 * (exit 2), like a missing API key for any other provider, instead of a failed turn that leaves a
 * session behind.
 */
export async function requireAwsCredentials(route: Route, apiKey: string | undefined): Promise<void> {
  if ((apiKey ?? '') !== '' || (process.env['AWS_BEARER_TOKEN_BEDROCK'] ?? '') !== '') return;
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  try {
    await defaultProvider()();
  } catch {
    throw new UsageError(
      `no AWS credentials for ${route.provider}: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass a Bedrock API key with --api-key`,
    );
  }
}

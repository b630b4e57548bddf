import { AbortError, HermesError, ConnectionError, StreamError, apiErrorFromStatus } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { trimBody } from '../shared/transport-http.js';

/**
 * Bedrock error mapping (STYLE rule 5 (docs/architecture.md)). The SDK throws service exceptions carrying `name`
 * (`ValidationException`, `ThrottlingException`, …), `message` and `$metadata`
 * (`httpStatusCode`, `requestId`). The service's JSON body is `{"message": …}` with the type in
 * the `x-amzn-ErrorType` header, so the body kept on the error is rebuilt from those two.
 */

/** The parts of an SDK service exception this module reads. */
interface ServiceExceptionLike {
  name: string;
  message: string;
  $metadata?: { httpStatusCode?: number; requestId?: string };
  $fault?: string;
}

function isServiceException(error: unknown): error is ServiceExceptionLike {
  return (
    error instanceof Error &&
    isJsonObject((error as unknown as { $metadata?: unknown }).$metadata) &&
    typeof (error as unknown as { $fault?: unknown }).$fault === 'string'
  );
}

/** The service error type (`ValidationException`, …) of an SDK error, when it is one. */
export function bedrockErrorType(error: unknown): string | undefined {
  return isServiceException(error) ? error.name : undefined;
}

/** The provider's message text of an SDK error. */
export function bedrockErrorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a person should do next, by error type. */
function advice(type: string): string {
  if (/validation/i.test(type)) return 'The request was refused as invalid; see the provider message.';
  if (/accessDenied|unrecognizedClient|expiredToken|security/i.test(type)) {
    return 'Check the AWS credentials (profile, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_BEARER_TOKEN_BEDROCK) and model access in the region.';
  }
  if (/throttling|serviceQuota/i.test(type)) return 'Bedrock is throttling this account; wait and retry.';
  if (/resourceNotFound/i.test(type))
    return 'Check the model id and region (inference profiles need their us./eu. prefix).';
  return 'Retry later; if it persists, check the Bedrock service health for the region.';
}

/**
 * Maps anything the SDK threw to a typed Hermes error. `afterEvents` marks a failure once the
 * stream started: then it is a {@link StreamError} (the terminal `error` event), never an HTTP
 * error class, because events were already delivered.
 */
export function bedrockErrorFrom(
  error: unknown,
  options: { signal?: AbortSignal | undefined; afterEvents: boolean; provider: string },
): HermesError {
  if (options.signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
    return new AbortError('The Bedrock request was aborted.');
  }
  // Already typed (a time limit of config.yaml `timeouts`, or an attempt mapped before its retry).
  if (error instanceof HermesError) return error;
  if (isServiceException(error)) {
    const status = error.$metadata?.httpStatusCode ?? (error.$fault === 'server' ? 500 : 400);
    const body = trimBody(JSON.stringify({ message: error.message }));
    const text = `Bedrock ${error.name} (HTTP ${status}): ${error.message} ${advice(error.name)}`;
    if (options.afterEvents) {
      return new StreamError(text, { body: error.message, retryable: status === 429 || status >= 500 });
    }
    return apiErrorFromStatus(text, {
      status,
      body,
      requestId: error.$metadata?.requestId,
      provider: options.provider,
    });
  }
  const message = bedrockErrorMessage(error);
  if (error instanceof Error && error.name === 'CredentialsProviderError') {
    return new HermesError(
      `No AWS credentials for Bedrock: ${message}. Set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or pass a Bedrock API key.`,
    );
  }
  if (options.afterEvents)
    return new StreamError(`Bedrock stream broke: ${message}`, { retryable: true, cause: error });
  return new ConnectionError(`Could not reach Bedrock: ${message}. Check the network and the base URL.`, {
    retryable: true,
    cause: error,
  });
}

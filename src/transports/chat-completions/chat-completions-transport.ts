import { HermesError } from '../../core/errors.js';
import { EventStream } from '../../core/event-stream.js';
import type { Transport } from '../shared/transport.js';
import { prepareChatCompletions } from './chat-completions-encode.js';

/** The chat-completions transport (placeholder until its issue lands). */
export const chatCompletionsTransport: Transport = {
  api: 'chat_completions',
  prepare: prepareChatCompletions,
  send() {
    const stream = new EventStream();
    stream.fail(new HermesError('chat-completions transport is not implemented yet'));
    return stream;
  },
};

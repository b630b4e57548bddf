import type { ChatPersona } from './chat-persona.js';
import { copilotPersona } from './chat-persona-copilot.js';
import { geminiOpenAiPersona } from './chat-persona-gemini.js';
import { strictMistralPersona } from './chat-persona-mistral.js';
import { openRouterPersona } from './chat-persona-openrouter.js';
import {
  deepseekPersona,
  localPersona,
  strictCerebrasPersona,
  strictFireworksPersona,
  strictGroqPersona,
} from './chat-persona-plain.js';
import type { ChatPersonaName } from './chat-emulator-types.js';

/** Every persona by name. */
export const CHAT_PERSONAS: Readonly<Record<ChatPersonaName, ChatPersona>> = {
  openrouter: openRouterPersona,
  deepseek: deepseekPersona,
  'strict-mistral': strictMistralPersona,
  'strict-groq': strictGroqPersona,
  'strict-cerebras': strictCerebrasPersona,
  'strict-fireworks': strictFireworksPersona,
  copilot: copilotPersona,
  'gemini-openai': geminiOpenAiPersona,
  local: localPersona,
};

import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import { runSessionStoreConformance } from './session-store.cases.js';

runSessionStoreConformance('memory', (clock) => createMemorySessionStore({ now: clock.now }));

// Type declarations for qtimers/promises: the same functions as Node's timers/promises, with the
// same signatures, so either can be used where the other is expected.

/// <reference types="node" />

export { setTimeout, setImmediate, setInterval, scheduler } from 'node:timers/promises';

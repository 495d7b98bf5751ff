#!/usr/bin/env node
// The command runs in this one process: tsx's loader is registered here instead of re-executing
// node with flags. A wrapper process in between did not pass on a SIGKILL, and the command it
// had started kept running (and writing --out) after the operator killed `guardagent`.
// isolated-vm is only loaded by the sandbox worker processes, which get --no-node-snapshot
// themselves (packages/pipeline/src/sandbox/create-guard-runner.ts).
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src/main.ts', import.meta.url).href);

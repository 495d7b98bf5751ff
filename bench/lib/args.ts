/** Command-line flags of `npm run bench -- ...`. */
export interface BenchArgs {
  json: boolean;
  /** Write V8 CPU profiles of the executor processes and of this process into this directory. */
  profileDir: string | null;
  /** Run only these sections (default: all). */
  only: Set<string> | null;
  /** Scale the sample/job counts (e.g. 0.1 for a quick smoke run). */
  scale: number;
}

export function parseArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { json: false, profileDir: null, only: null, scale: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') args.json = true;
    else if (arg === '--profile') args.profileDir = argv[++i] ?? 'bench-profiles';
    else if (arg.startsWith('--profile=')) args.profileDir = arg.slice('--profile='.length);
    else if (arg === '--only') args.only = new Set((argv[++i] ?? '').split(','));
    else if (arg.startsWith('--only=')) args.only = new Set(arg.slice('--only='.length).split(','));
    else if (arg === '--scale') args.scale = Number(argv[++i]);
    else if (arg.startsWith('--scale=')) args.scale = Number(arg.slice('--scale='.length));
    else if (arg === '--help' || arg === '-h') {
      process.stderr.write(
        'npm run bench [-- --json] [--profile DIR] [--only raw,compiled,hops,batch,cluster,decision-log,sandbox,per-request,rails,adversarial,retrieval,start] [--scale=0.1]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown flag ${arg} (see --help)`);
  }
  if (!(args.scale > 0)) throw new Error('--scale must be a positive number');
  return args;
}

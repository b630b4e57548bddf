// `--import` helper of run.mjs: when the process is the bench script named in
// HERMES_BENCH_CPU_REPORT, prints its own CPU time (user + system) on exit as `cpu-ms N`.
import { argv } from 'node:process';

const wanted = process.env['HERMES_BENCH_CPU_REPORT'];
if (wanted && argv[1]?.endsWith(wanted)) {
  process.on('exit', () => {
    const usage = process.cpuUsage();
    process.stdout.write(`cpu-ms ${((usage.user + usage.system) / 1000).toFixed(0)}\n`);
  });
}

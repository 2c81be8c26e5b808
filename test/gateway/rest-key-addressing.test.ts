// A key is addressed by its percent-encoded form; only a literal `:select` after it makes the
// selecting twin. The router decodes `%3A` before it matches (and tests a twin's key on the
// decoded segment, so `%2F` in a key hid the twin), which once sent `/labels/x%3Aselect` to the
// twin of `x`. A model with a string key (generated here from a small $metadata) shows what a
// user of such a service sees; the Northwind suite covers the same for a Guid key.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitContextFor, generate } from '../../codegen/generate.js';
import { loadGeneratedArtefacts } from '../../gateway/model-artefacts.js';
import type { RunningGateway } from '../../gateway/start.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import type { MemoryUpstream } from '../helpers/memory-data-source.js';
import { startMemoryUpstream } from '../helpers/memory-data-source.js';

const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <edmx:DataServices m:DataServiceVersion="2.0">
    <Schema Namespace="Labels" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityType Name="Label">
        <Key><PropertyRef Name="Code"/></Key>
        <Property Name="Code" Type="Edm.String" Nullable="false" MaxLength="40"/>
        <Property Name="Title" Type="Edm.String" MaxLength="80"/>
        <NavigationProperty Name="Notes" Relationship="Labels.Label_Notes" FromRole="Label" ToRole="Notes"/>
      </EntityType>
      <EntityType Name="Note">
        <Key><PropertyRef Name="NoteID"/></Key>
        <Property Name="NoteID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Code" Type="Edm.String" Nullable="false" MaxLength="40"/>
        <Property Name="Text" Type="Edm.String" MaxLength="80"/>
      </EntityType>
      <Association Name="Label_Notes">
        <End Type="Labels.Label" Multiplicity="1" Role="Label"/>
        <End Type="Labels.Note" Multiplicity="*" Role="Notes"/>
        <ReferentialConstraint>
          <Principal Role="Label"><PropertyRef Name="Code"/></Principal>
          <Dependent Role="Notes"><PropertyRef Name="Code"/></Dependent>
        </ReferentialConstraint>
      </Association>
      <EntityContainer Name="LabelsContainer" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Labels" EntityType="Labels.Label"/>
        <EntitySet Name="Notes" EntityType="Labels.Note"/>
        <AssociationSet Name="Label_NotesSet" Association="Labels.Label_Notes">
          <End EntitySet="Labels" Role="Label"/>
          <End EntitySet="Notes" Role="Notes"/>
        </AssociationSet>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

const tmpRoot = path.resolve('test/gateway/.tmp');

describe('REST keys that look like the `:select` suffix (a string-keyed model)', () => {
  let dir: string;
  let upstream: MemoryUpstream;
  let gateway: RunningGateway;
  const get = (url: string) => fetch(`${gateway.restRoot}${url}`, { headers: { 'x-serviceapikey': 'labels' } });
  const json = async (url: string) => {
    const response = await get(url);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { items?: Record<string, unknown>[] } };
  };

  beforeAll(async () => {
    mkdirSync(tmpRoot, { recursive: true });
    dir = mkdtempSync(path.join(tmpRoot, 'keys-'));
    const model = readEdmx(EDMX);
    for (const file of await generate(model, emitContextFor(dir))) writeFileSync(path.join(dir, file.path), file.contents);
    upstream = await startMemoryUpstream(model, new Map([
      ['Labels', [
        { Code: 'x', Title: 'plain x' },
        { Code: 'x:select', Title: 'ends in the suffix' },
        { Code: 'a/b', Title: 'with a slash' },
        { Code: 'a/b:select', Title: 'slash and suffix' },
      ]],
      ['Notes', [
        { NoteID: 1, Code: 'x', Text: 'of x' },
        { NoteID: 2, Code: 'x:select', Text: 'of x:select' },
        { NoteID: 3, Code: 'a/b', Text: 'of a/b' },
      ]],
    ]));
    gateway = await startGatewayInFront(upstream.root, { artefacts: await loadGeneratedArtefacts(dir), features: [] });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the entity whose key ends in `:select` at its percent-encoded key, whole', async () => {
    for (const url of ['/labels/x%3Aselect', '/labels/x%3aselect', `/labels/${encodeURIComponent('x:select')}`]) {
      expect(await json(url)).toEqual({ status: 200, body: { code: 'x:select', title: 'ends in the suffix' } });
    }
    const head = await fetch(`${gateway.restRoot}/labels/x%3Aselect`, { method: 'HEAD', headers: { 'x-serviceapikey': 'labels' } });
    expect(head.status).toBe(200);
    // The plain read takes `select` too: still the entity `x:select`, not the twin of `x`.
    expect(await json('/labels/x%3Aselect?select=title')).toEqual({ status: 200, body: { title: 'ends in the suffix' } });
  });

  it('takes a literal `:select` after the key as the selecting twin, whatever the key holds', async () => {
    expect(await json('/labels/x:select?select=title')).toEqual({ status: 200, body: { title: 'plain x' } });
    expect(await json('/labels/x:select/?select=title')).toEqual({ status: 200, body: { title: 'plain x' } });
    expect(await json('/labels/x%3Aselect:select?select=title')).toEqual({ status: 200, body: { title: 'ends in the suffix' } });
    expect(await json('/labels/a%2Fb:select?select=title')).toEqual({ status: 200, body: { title: 'with a slash' } });
    expect(await json('/labels/a%2Fb%3Aselect:select?select=title')).toEqual({ status: 200, body: { title: 'slash and suffix' } });
    // The twin needs its `select`: a 400 naming it, not a whole read.
    const bare = await json('/labels/x:select');
    expect(bare.status).toBe(400);
    expect(JSON.stringify(bare.body)).toContain("'select' is required");
  });

  it('reads keys with an encoded slash on the plain path', async () => {
    expect(await json('/labels/a%2Fb')).toEqual({ status: 200, body: { code: 'a/b', title: 'with a slash' } });
    expect(await json('/labels/a%2Fb%3Aselect')).toEqual({ status: 200, body: { code: 'a/b:select', title: 'slash and suffix' } });
  });

  it('follows navigations from such keys, and takes only a literal `:select` as their twin', async () => {
    const texts = async (url: string) => (await json(url)).body.items?.map((note) => note.text);
    expect(await texts('/labels/x%3Aselect/notes')).toEqual(['of x:select']);
    expect(await texts('/labels/a%2Fb/notes')).toEqual(['of a/b']);
    expect(await texts('/labels/x%3Aselect/notes:select?select=text')).toEqual(['of x:select']);
    expect(await texts('/labels/a%2Fb/notes:select?select=text')).toEqual(['of a/b']);
    expect((await get('/labels/x/notes%3Aselect?select=text')).status).toBe(404);
    expect((await get('/labels%3Aselect?select=title')).status).toBe(404);
  });

  it('updates and deletes the entity whose key ends in `:select`; the twin refuses both', async () => {
    const send = (method: string, url: string, body?: unknown) => fetch(`${gateway.restRoot}${url}`, {
      method,
      headers: { 'x-serviceapikey': 'labels', ...(body === undefined ? {} : { 'content-type': 'application/merge-patch+json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const patched = await send('PATCH', '/labels/x%3Aselect', { title: 'renamed' });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toEqual({ code: 'x:select', title: 'renamed' });
    expect((await json('/labels/x')).body.title).toBe('plain x');
    expect((await send('PATCH', '/labels/a%2Fb:select', { title: 'no' })).status).toBe(405);
    expect((await json('/labels/a%2Fb:select?select=title')).body.title).toBe('with a slash');
    expect((await send('DELETE', '/labels/x:select')).status).toBe(405);
    expect((await send('DELETE', '/labels/a%2Fb%3Aselect')).status).toBe(204);
    expect((await get('/labels/a%2Fb%3Aselect')).status).toBe(404);
    expect((await get('/labels/a%2Fb')).status).toBe(200);
  });
});

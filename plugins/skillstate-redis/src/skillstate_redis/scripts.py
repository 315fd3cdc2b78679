"""The Lua scripts every write of the ``redis:`` store is: each one atomic on the server.

A script checks before it writes anything (the run's key is this store's, the version
is the expected one), so a refused write changes nothing. Redis runs a script alone
and writes its effects to the append-only file as one ``MULTI``/``EXEC`` block, so a
server that restarts from its AOF has all of a write or none of it.

Keys (``P`` is the URL's prefix): ``P runs`` a sorted set of run ids (score 0, read
by ``ZRANGE … BYLEX`` a page at a time); ``P run:ID`` a hash with the record
(``record``, canonical JSON), the summary fields and the mark ``skillstate``;
``P journal:ID`` a hash from version to journal entry; ``P snapshots:ID`` a sorted set
of snapshots scored by version (member ``VERSION JSON``).
"""

from __future__ import annotations

__all__ = ["COMMIT", "CREATE", "DELETE", "MARK"]

MARK = "1"
"""The value of the ``skillstate`` field that says a hash is a run this store wrote."""

# KEYS: run, journal, snapshots
# ARGV: mark, expected, version, skill, status, updated, record, entry, snapshot ('' = none)
COMMIT = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return 'missing' end
if kind ~= 'hash' then return 'foreign' end
local have = redis.call('HMGET', KEYS[1], 'skillstate', 'version')
if have[1] ~= ARGV[1] then return 'foreign' end
if have[2] ~= ARGV[2] then return 'conflict ' .. tostring(have[2]) end
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'skill', ARGV[4], 'status', ARGV[5],
  'updated', ARGV[6], 'record', ARGV[7])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[8])
if ARGV[9] ~= '' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[9]) end
return 'ok'
"""

# KEYS: run, journal, snapshots, index
# ARGV: mark, id, version, skill, status, updated, record, then for each journal entry
# three values: its version, the entry, its snapshot ('' = none)
CREATE = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'none' then
  if kind == 'hash' and redis.call('HGET', KEYS[1], 'skillstate') == ARGV[1] then
    return 'exists'
  end
  return 'foreign'
end
if redis.call('EXISTS', KEYS[2], KEYS[3]) > 0 then return 'foreign journal' end
redis.call('HSET', KEYS[1], 'skillstate', ARGV[1], 'version', ARGV[3], 'skill', ARGV[4],
  'status', ARGV[5], 'updated', ARGV[6], 'record', ARGV[7])
for i = 8, #ARGV, 3 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  if ARGV[i + 2] ~= '' then redis.call('ZADD', KEYS[3], ARGV[i], ARGV[i + 2]) end
end
redis.call('ZADD', KEYS[4], 0, ARGV[2])
return 'ok'
"""

# KEYS: run, journal, snapshots, index
# ARGV: mark, id, expected version ('' = any)
DELETE = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return 'missing' end
if kind ~= 'hash' then return 'foreign' end
local have = redis.call('HMGET', KEYS[1], 'skillstate', 'version')
if have[1] ~= ARGV[1] then return 'foreign' end
if ARGV[3] ~= '' and have[2] ~= ARGV[3] then return 'conflict ' .. tostring(have[2]) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[2])
return 'ok'
"""

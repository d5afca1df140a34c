-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/sql-reset.html (RESET restores the session default, here the server's 0 = no limit); runtime-config-client.html (statement_timeout)
-- verified: PG15: after RESET, SHOW statement_timeout = 0 (server default: no limit)
-- given: CREATE TABLE messages (id bigserial PRIMARY KEY, thread_id bigint, body text, search_text text);
SET statement_timeout = '20min';
UPDATE messages SET search_text = lower(body) WHERE id BETWEEN 1 AND 50000 AND search_text IS NULL;
RESET statement_timeout;

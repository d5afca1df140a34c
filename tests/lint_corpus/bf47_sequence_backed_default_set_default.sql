-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DEFAULT: "only affects subsequent INSERT"; no rewrite even for a volatile nextval()); https://www.postgresql.org/docs/current/sql-altersequence.html (OWNED BY, RESTART)
-- verified: PG15: all statements succeed; quotes relfilenode unchanged; existing rows keep NULL number, the next insert gets 100000
-- given: CREATE TABLE quotes (id bigint PRIMARY KEY, customer_id bigint NOT NULL, number bigint, created_at timestamptz NOT NULL DEFAULT now());
CREATE SEQUENCE IF NOT EXISTS quotes_number_seq AS bigint START WITH 100000;
ALTER SEQUENCE quotes_number_seq OWNED BY quotes.number;
ALTER TABLE quotes ALTER COLUMN number SET DEFAULT nextval('quotes_number_seq'::regclass);

-- safemigrate: group-start
UPDATE acc SET n = n + 10;
UPDATE acc SET n = n + 1;
-- safemigrate: group-end

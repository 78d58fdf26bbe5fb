0004_seed_authors_and_books.sql
-- migrate:up
INSERT INTO author (id, name, country) VALUES
    (1, 'Ursula K. Le Guin', 'US'),
    (2, 'Italo Calvino', 'IT');
INSERT INTO book (author_id, title, published_year) VALUES
    (1, 'The Dispossessed', 1974),
    (1, 'A Wizard of Earthsea', 1968),
    (2, 'Invisible Cities', 1972);

-- migrate:down
DELETE FROM book WHERE author_id IN (1, 2);
DELETE FROM author WHERE id IN (1, 2);
